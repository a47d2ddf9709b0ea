# storcheck bad input: an op that ops.def does not have
t0 = arange [3] f32
t1 = frob t0
