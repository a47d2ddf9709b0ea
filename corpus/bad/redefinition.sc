# storcheck bad input: t0 is assigned twice
t0 = zeros [2] f32
t0 = ones [2] f32
