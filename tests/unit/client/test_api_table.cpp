// The API list as a table (src/client/api_table.h, Note [One op list]): what every entry of the
// list must satisfy, whatever the operators are, and a call through the table reaching the API.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>

#include "aclnn/aclnn_cpu.h"
#include "aclnn_call.h"
#include "client/api_table.h"

namespace {

namespace apis = aclnn_cpu::apis;

TEST(ApiTable, TheListHasAnApiAndEachIdIndexesItself) {
  ASSERT_GT(apis::kApiCount, 0u);
  for (size_t i = 0; i < apis::kApiCount; ++i) {
    EXPECT_EQ(static_cast<size_t>(apis::kAll[i].id), i);
    EXPECT_EQ(&apis::Get(apis::kAll[i].id), &apis::kAll[i]);
  }
}

TEST(ApiTable, NamesAreUniqueAndSpelledAsCanns) {
  std::set<std::string> names, short_names;
  for (const apis::Api& api : apis::kAll) {
    EXPECT_TRUE(names.insert(api.name).second) << api.name;
    EXPECT_TRUE(short_names.insert(api.short_name).second) << api.short_name;
    EXPECT_EQ(std::string(api.second_phase_name), std::string("aclnn") + api.name);
    EXPECT_EQ(std::string(api.first_phase_name), std::string("aclnn") + api.name + "GetWorkspaceSize");
    EXPECT_EQ(apis::Find(api.short_name), &api);
    EXPECT_NE(api.first_phase, nullptr);
    EXPECT_NE(api.second_phase, nullptr);
  }
  EXPECT_EQ(apis::Find("no such operator"), nullptr);
}

TEST(ApiTable, EveryOperandHasTheSlotOfItsRoleAndARoleOnce) {
  for (const apis::Api& api : apis::kAll) {
    std::set<std::string> roles, parameters;
    bool has_output = false;
    for (const apis::Operand& o : api.operands) {
      EXPECT_TRUE(roles.insert(o.role).second) << api.name << ": role " << o.role << " twice";
      EXPECT_TRUE(parameters.insert(o.parameter).second) << api.name << ": parameter " << o.parameter << " twice";
      EXPECT_EQ(api.Find(o.role), &o);
      if (o.is_tensor()) {
        ASSERT_LT(o.slot, apis::kTensorSlots);
        EXPECT_STREQ(apis::kTensorRoles[o.slot], o.role);
        EXPECT_EQ(apis::TensorSlot(o.role), o.slot);
      } else {
        ASSERT_LT(o.slot, apis::kIntSlots);
        EXPECT_STREQ(apis::kIntRoles[o.slot], o.role);
      }
      if (o.is_output()) {
        has_output = true;
        ASSERT_LT(o.dtype_slot, apis::kTensorSlots) << api.name << ": " << o.role << " takes its dtype from no role";
        EXPECT_TRUE(api.Has(apis::kTensorRoles[o.dtype_slot])) << api.name << ": " << o.role;
      } else {
        EXPECT_EQ(o.dtype_slot, apis::kNoSlot);
      }
    }
    EXPECT_TRUE(has_output) << api.name;
  }
}

TEST(ApiTable, ARoleIsATensorInEveryApiOrInNone) {
  for (size_t slot = 0; slot < apis::kTensorSlots; ++slot) {
    EXPECT_EQ(apis::IntSlot(apis::kTensorRoles[slot]), apis::kNoSlot) << apis::kTensorRoles[slot];
  }
  EXPECT_EQ(apis::TensorSlot("no such role"), apis::kNoSlot);
  EXPECT_EQ(apis::IntSlot("no such role"), apis::kNoSlot);
}

TEST(ApiTable, OperandsOfAnUnknownRoleAreRefused) {
  apis::Operands operands;
  EXPECT_THROW(operands.Set("no such role", nullptr), std::out_of_range);
  EXPECT_THROW(operands.SetInt("no such role", 0), std::out_of_range);
  EXPECT_EQ(operands.Get("no such role"), nullptr);
}

TEST(ApiTable, ACallThroughTheTableReachesItsApi) {
  // Every API has a required tensor: without operands its first phase refuses the first one by
  // CANN's name, in a message that names the API.
  for (const apis::Api& api : apis::kAll) {
    const apis::Operand* required = nullptr;
    for (const apis::Operand& o : api.operands) {
      if (required == nullptr && (o.kind == apis::OperandKind::kInput || o.is_output())) required = &o;
    }
    ASSERT_NE(required, nullptr) << api.name;
    const acl_test::CallOutcome r = acl_test::AclnnCall(api.id).Run();
    EXPECT_EQ(r.status, ACLNN_ERR_PARAM_NULLPTR) << api.name;
    EXPECT_EQ(r.failed_step, "first phase");
    EXPECT_NE(r.message.find(api.first_phase_name), std::string::npos) << r.message;
    EXPECT_NE(r.message.find(required->parameter), std::string::npos) << r.message;
    EXPECT_EQ(aclnnCpuGetRecentErrorKind(), ACLNN_CPU_ERROR_NULL_POINTER);
  }
}

}  // namespace
