# storcheck bad input: '=' with no op
t0 =
