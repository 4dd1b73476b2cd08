// The machine model (exec/model.hpp): one measurement, the same on every rank; cached as an MPI
// attribute (inherited by MPI_Comm_dup, not by MPI_Comm_split) and read through Comm::attribute(),
// which remembers what it found until any such attribute changes; JSON round trip and errors.
#include "hpf_test.hpp"

#include <hpf/exec/model.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using hpf::MachineModel;

/// True on every rank when every rank holds the same bytes of `v`.
bool same_everywhere(const std::vector<double>& v) {
  std::vector<double> mine = v, lo = v, hi = v;
  HPF_MPI_CHECK(
      MPI_Allreduce(mine.data(), lo.data(), static_cast<int>(v.size()), MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD));
  HPF_MPI_CHECK(
      MPI_Allreduce(mine.data(), hi.data(), static_cast<int>(v.size()), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  return lo == hi;
}

std::vector<double> values(const MachineModel& m) {
  std::vector<double> v{m.alpha, m.beta, m.plogp.L()};
  for (const auto& s : m.plogp.samples()) v.insert(v.end(), {static_cast<double>(s.m), s.g, s.os, s.orr});
  return v;
}

TEST(MachineModel, MeasuredIsTheSameOnEveryRank) {
  const hpf::Comm comm = hpf::Comm::duplicate(MPI_COMM_WORLD);
  const MachineModel m = hpf::measure_machine_model(comm);
  EXPECT_TRUE(same_everywhere(values(m)));
  EXPECT_GT(m.beta, 0);
  EXPECT_GE(m.alpha, 0);
  EXPECT_EQ(m.plogp.samples().size(), 4u);
}

// Where the ranks run (detail::shares_one_node): the same answer on every rank, cached and inherited
// by MPI_Comm_dup like the model, and true on one rank and for CTest's runs (every rank on this host).
TEST(MachineModel, SharesOneNodeIsTheSameOnEveryRank) {
  const hpf::Comm comm = hpf::Comm::duplicate(MPI_COMM_WORLD);
  const bool one = hpf::detail::shares_one_node(comm);
  EXPECT_TRUE(same_everywhere({one ? 1.0 : 0.0}));
  EXPECT_EQ(hpf::detail::shares_one_node(comm), one); // cached
  const hpf::Comm dup = hpf::Comm::duplicate(comm.get());
  EXPECT_EQ(hpf::detail::shares_one_node(dup), one);
  EXPECT_TRUE(hpf::detail::shares_one_node(hpf::Comm::duplicate(MPI_COMM_SELF)));
  EXPECT_TRUE(one) << "CTest starts every rank on this host";
}

TEST(MachineModel, AttributeIsInheritedByDupNotBySplit) {
  // The test environment gives MPI_COMM_WORLD a fixed model (HPF_MACHINE_MODEL, via hpf::Environment).
  ASSERT_TRUE(hpf::has_machine_model(MPI_COMM_WORLD));
  const MachineModel world = hpf::machine_model(hpf::Comm::duplicate(MPI_COMM_WORLD));
  EXPECT_EQ(world, hpf::load_machine_model(std::getenv("HPF_MACHINE_MODEL")));
  MPI_Comm split = MPI_COMM_NULL;
  HPF_MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, 0, 0, &split));
  EXPECT_FALSE(hpf::has_machine_model(split));
  {
    const hpf::Comm own = hpf::Comm::adopt(split);
    const MachineModel measured = hpf::machine_model(own); // collective: measures, then caches
    EXPECT_TRUE(same_everywhere(values(measured)));
    EXPECT_TRUE(hpf::has_machine_model(own.get()));
    EXPECT_EQ(hpf::machine_model(own), measured); // cached: no second measurement
    const hpf::Comm dup = hpf::Comm::duplicate(own.get());
    EXPECT_TRUE(hpf::has_machine_model(dup.get()));
    EXPECT_EQ(hpf::machine_model(dup), measured);
    MachineModel other = measured;
    other.alpha += 1;
    hpf::set_machine_model(dup, other);
    EXPECT_EQ(hpf::machine_model(dup), other);
    EXPECT_EQ(hpf::machine_model(own), measured); // the parent keeps its own
  }
}

// Comm::attribute() remembers a value it found, in the Comm and its copies, and looks again once a
// delete callback has called detail::comm_attributes_changed(): a value replaced or deleted (here,
// or on another communicator) is never returned stale, and a value set after a miss is found.
namespace counted {
int deletes = 0;
int forget(MPI_Comm, int, void*, void*) {
  ++deletes;
  hpf::detail::comm_attributes_changed();
  return MPI_SUCCESS;
}
} // namespace counted

TEST(CommAttribute, RemembersAValueUntilAnAttributeChanges) {
  int keyval = MPI_KEYVAL_INVALID;
  HPF_MPI_CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, counted::forget, &keyval, nullptr));
  int a = 1;
  int b = 2;
  {
    const hpf::Comm comm = hpf::Comm::duplicate(MPI_COMM_WORLD);
    const hpf::Comm copy = comm; // shares the handle and what it remembers
    const hpf::Comm other = hpf::Comm::duplicate(MPI_COMM_WORLD);
    EXPECT_EQ(comm.attribute(keyval), nullptr);
    HPF_MPI_CHECK(MPI_Comm_set_attr(comm.get(), keyval, &a)); // after a miss: found next time
    EXPECT_EQ(comm.attribute(keyval), &a);
    EXPECT_EQ(copy.attribute(keyval), &a);
    HPF_MPI_CHECK(MPI_Comm_set_attr(comm.get(), keyval, &b)); // replaces a: its delete callback runs
    EXPECT_EQ(counted::deletes, 1);
    EXPECT_EQ(comm.attribute(keyval), &b);
    EXPECT_EQ(copy.attribute(keyval), &b);
    HPF_MPI_CHECK(MPI_Comm_set_attr(other.get(), keyval, &a));
    EXPECT_EQ(other.attribute(keyval), &a);
    HPF_MPI_CHECK(MPI_Comm_delete_attr(comm.get(), keyval));
    EXPECT_EQ(comm.attribute(keyval), nullptr);
    EXPECT_EQ(copy.attribute(keyval), nullptr);
    EXPECT_EQ(other.attribute(keyval), &a); // looked up again, still there
    // The model is read through it too: replacing it is seen at once.
    hpf::MachineModel m = hpf::MachineModel::fallback();
    hpf::set_machine_model(other, m);
    EXPECT_EQ(hpf::detail::machine_alpha_beta(other).first, m.alpha);
    m.alpha += 1;
    hpf::set_machine_model(other, m); // replaces the model: the delete callback forgets it
    EXPECT_EQ(hpf::detail::machine_alpha_beta(other).first, m.alpha);
  } // `other` is freed with its value: the delete callback runs once more
  EXPECT_EQ(counted::deletes, 3);
  HPF_MPI_CHECK(MPI_Comm_free_keyval(&keyval));
  // It does remember: a keyval outside the contract (its delete callback says nothing) is returned as
  // first found after MPI replaced it, until another attribute changes.
  int silent = MPI_KEYVAL_INVALID;
  HPF_MPI_CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &silent, nullptr));
  {
    const hpf::Comm comm = hpf::Comm::duplicate(MPI_COMM_WORLD);
    HPF_MPI_CHECK(MPI_Comm_set_attr(comm.get(), silent, &a));
    EXPECT_EQ(comm.attribute(silent), &a);
    HPF_MPI_CHECK(MPI_Comm_set_attr(comm.get(), silent, &b));
    EXPECT_EQ(comm.attribute(silent), &a); // remembered, not looked up
    hpf::detail::comm_attributes_changed();
    EXPECT_EQ(comm.attribute(silent), &b);
  }
  HPF_MPI_CHECK(MPI_Comm_free_keyval(&silent));
  EXPECT_THROW((void)hpf::Comm().attribute(0), hpf::Error);
}

TEST(MachineModel, JsonRoundTripAndErrors) {
  const MachineModel m = MachineModel::fallback();
  EXPECT_EQ(hpf::machine_model_from_json(hpf::to_json(m)), m);
  const std::string path = "model_" + std::to_string(hpf::test::world_rank()) + ".json";
  hpf::save_machine_model(m, path);
  EXPECT_EQ(hpf::load_machine_model(path), m);
  std::remove(path.c_str());
  HPF_EXPECT_ERROR(hpf::load_machine_model("/nonexistent/model.json"), "cannot open",
                   "/nonexistent/model.json");
  HPF_EXPECT_ERROR(hpf::machine_model_from_json("{\"alpha\": 1"), "not valid JSON");
  HPF_EXPECT_ERROR(hpf::machine_model_from_json("[1, 2]"), "expected an object");
  HPF_EXPECT_ERROR(hpf::machine_model_from_json("{\"alpha\": -1, \"beta\": 1}"), "alpha", "-1");
  HPF_EXPECT_ERROR(hpf::machine_model_from_json("{\"alpha\": 1, \"beta\": 1}"), "plogp");
  HPF_EXPECT_ERROR(
      hpf::machine_model_from_json(
          R"({"alpha":1,"beta":1,"plogp":{"L":0,"samples":[{"m":5,"g":0,"os":0,"or":0},{"m":1,"g":0,"os":0,"or":0}]}})"),
      "increase");
  std::string deep(100000, '[');
  HPF_EXPECT_ERROR(hpf::machine_model_from_json(deep), "nested deeper than 64"); // bounded before parsing
}

TEST(MachineModel, PingPongArguments) {
  const hpf::Comm comm = hpf::Comm::duplicate(MPI_COMM_WORLD);
  const int n = comm.size();
  HPF_EXPECT_ERROR(hpf::ping_pong(comm, 0, n, 8), "ranks a = 0 and b = " + std::to_string(n));
  const hpf::PingPongResult self = hpf::ping_pong(comm, 0, 0, 8);
  EXPECT_EQ(self.rtt, 0);
  if (n >= 2) {
    const hpf::PingPongResult r = hpf::ping_pong(comm, 1, 0, 1024, {5, 4, true});
    if (comm.rank() == 1) {
      EXPECT_GT(r.rtt, 0);
      EXPECT_GT(r.g, 0);
    }
  }
}

} // namespace
