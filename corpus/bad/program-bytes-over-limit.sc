# storcheck bad input: 17 factories of 1 MiB, max_program_bytes is 16 MiB
t0 = zeros [262144] f32
t1 = zeros [262144] f32
t2 = zeros [262144] f32
t3 = zeros [262144] f32
t4 = zeros [262144] f32
t5 = zeros [262144] f32
t6 = zeros [262144] f32
t7 = zeros [262144] f32
t8 = zeros [262144] f32
t9 = zeros [262144] f32
t10 = zeros [262144] f32
t11 = zeros [262144] f32
t12 = zeros [262144] f32
t13 = zeros [262144] f32
t14 = zeros [262144] f32
t15 = zeros [262144] f32
t16 = zeros [262144] f32
