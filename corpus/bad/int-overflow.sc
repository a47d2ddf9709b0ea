# storcheck bad input: an int argument beyond int64
t0 = arange [3,4] f32
t1 = select t0 0 99999999999999999999
