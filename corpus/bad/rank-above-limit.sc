# storcheck bad input: 9 sizes, max_rank is 8
t0 = zeros [1,1,1,1,1,1,1,1,1] f32
