# storcheck bad input: t0 is used after 'drop t0' (line 4)
t0 = zeros [2] f32
t1 = alias t0
drop t0
add_ t0 1
