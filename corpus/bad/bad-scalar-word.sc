# storcheck bad input: a scalar that is not a number
t0 = zeros [3] f32
fill_ t0 abc
