# storcheck bad input: transpose takes 3 arguments
t0 = arange [3,4] f32
t1 = transpose t0 0
