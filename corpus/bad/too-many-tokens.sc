# storcheck bad input: more tokens than any op takes
t0 = zeros [2] f32
t1 = slice t0 0 0 1 1 1 1
