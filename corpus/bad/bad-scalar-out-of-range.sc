# storcheck bad input: 1e999 is not finite
t0 = zeros [3] f32
fill_ t0 1e999
