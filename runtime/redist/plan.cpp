#include <hpf/redist/plan.hpp>

namespace hpf::detail {

ExecMode exec_mode_of(Strategy s) {
  switch (s) {
  case Strategy::AllAtOnce:
    return ExecMode::AllAtOnce;
  case Strategy::Alltoallv:
    return ExecMode::Alltoallv;
  case Strategy::Auto:
  case Strategy::Caterpillar:
  case Strategy::Class:
  case Strategy::KoenigStepwise:
  case Strategy::KoenigGreedy:
    break;
  }
  // Desprez et al. run their schedules step by step: every rank sends and receives at most one message per
  // step, so no link or port carries two messages at once (the contention the schedules avoid).
  return ExecMode::StepSynchronous;
}

} // namespace hpf::detail
