# storcheck bad input: t9 is never defined
t0 = zeros [2] f32
add_ t9 1
