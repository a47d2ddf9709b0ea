# storcheck bad input: zero_ takes 1 argument
t0 = zeros [2] f32
zero_
