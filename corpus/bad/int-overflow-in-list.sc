# storcheck bad input: a list entry beyond int64
t0 = zeros [99999999999999999999] f32
