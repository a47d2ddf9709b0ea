# storcheck bad input: -nan is rejected
t0 = zeros [3] f32
fill_ t0 -nan
