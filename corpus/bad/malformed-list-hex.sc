# storcheck bad input: hex is not accepted
t0 = zeros [0x10] f32
