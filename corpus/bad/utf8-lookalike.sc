# storcheck bad input: a non-ASCII (valid UTF-8) minus sign
t0 = arange [3,4] f32
t1 = select t0 0 −1
