# storcheck bad input: a name starting with a digit
1t = zeros [2] f32
