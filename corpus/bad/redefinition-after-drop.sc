# storcheck bad input: a dropped name cannot be reassigned
t0 = zeros [2] f32
drop t0
t0 = ones [2] f32
