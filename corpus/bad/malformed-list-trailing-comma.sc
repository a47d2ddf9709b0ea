# storcheck bad input: a list with an empty entry
t0 = zeros [3,] f32
