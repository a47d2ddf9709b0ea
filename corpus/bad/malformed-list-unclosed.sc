# storcheck bad input: a list with no ']'
t0 = zeros [3, f32
