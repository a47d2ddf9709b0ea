# storcheck bad input: a variable where transpose wants an int
t0 = arange [3,4] f32
t1 = transpose t0 t0 1
