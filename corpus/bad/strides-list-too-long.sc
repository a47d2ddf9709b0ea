# storcheck bad input: 9 strides, max_rank is 8
t0 = empty_strided [2,2] [1,1,1,1,1,1,1,1,1] f32
