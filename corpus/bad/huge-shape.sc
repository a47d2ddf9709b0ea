# storcheck bad input: numel * itemsize overflows int64
t0 = zeros [4611686018427387904,4] f32
