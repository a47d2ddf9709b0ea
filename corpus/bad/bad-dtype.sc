# storcheck bad input: f16 is not a dtype of the language
t0 = zeros [3] f16
