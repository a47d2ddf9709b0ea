# storcheck program v1
# property: pytorch.memo_weak_no_leak
# what: S8 - copy_ into a fake tensor from a real one whose storage was
#   emptied (R2). Every backend rejects it as device_mismatch, but PyTorch
#   1.13's FakeTensorMode builds its error message with the repr of every
#   argument, which reads the real tensor's elements past its empty storage
#   (a segfault of the harness). The PyTorch backend skipped case 3 of Note
#   [Steps the PyTorch backend refuses] for any step with a meta or fake
#   input; it now refuses such a step when a real input is undersized (the
#   same holds for add_out, mul_out and set_).
# found: 2026-12-02 by pytorch.memo_weak_no_leak (seed 1912, program 6,259:
#   the process died, nothing shrunk); cut down by hand from its 14 steps
t0 = rand [6,3,1,3] f64 7
t2 = permute t0 [-1,2,0,1]
t3 = fake t0
shrink t0
copy_ t3 t2
