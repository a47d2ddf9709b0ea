# storcheck bad input: arange takes 2 arguments
t0 = arange [3] f32 7
