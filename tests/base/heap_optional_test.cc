// HeapOptional: a value-semantic optional on the heap, as PathAttributes stores its MP nexthop.
#include "base/heap_optional.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace sluice::base {
namespace {

TEST(HeapOptionalTest, IsOnePointerWide) {
  EXPECT_EQ(sizeof(HeapOptional<std::vector<std::string>>), sizeof(void*));
}

TEST(HeapOptionalTest, StartsEmptyAndHoldsWhatIsSet) {
  HeapOptional<std::string> v;
  EXPECT_FALSE(v.has_value());
  EXPECT_FALSE(v);
  v = std::string("nexthop");
  ASSERT_TRUE(v);
  EXPECT_EQ(*v, "nexthop");
  EXPECT_EQ(v->size(), 7u);
  v = std::nullopt;
  EXPECT_FALSE(v);
  v = "again";
  v.reset();
  EXPECT_FALSE(v.has_value());
}

TEST(HeapOptionalTest, CopiesAreIndependentValues) {
  HeapOptional<std::string> a(std::string("a"));
  HeapOptional<std::string> b = a;
  *b += "b";
  EXPECT_EQ(*a, "a");
  EXPECT_EQ(*b, "ab");
  a = b;
  EXPECT_EQ(*a, "ab");
  *a += "c";
  EXPECT_EQ(*b, "ab");
  HeapOptional<std::string> empty;
  a = empty;
  EXPECT_FALSE(a);
  const HeapOptional<std::string>& same = b;
  b = same;  // self-assignment keeps the value
  ASSERT_TRUE(b);
  EXPECT_EQ(*b, "ab");
}

TEST(HeapOptionalTest, MovingTakesTheValueAndLeavesTheSourceEmpty) {
  HeapOptional<std::string> a(std::string("moved"));
  HeapOptional<std::string> b = std::move(a);
  EXPECT_FALSE(a);  // documented: unlike std::optional
  ASSERT_TRUE(b);
  EXPECT_EQ(*b, "moved");
}

TEST(HeapOptionalTest, ComparesValuesNotAddresses) {
  HeapOptional<std::string> a(std::string("x")), b(std::string("x")), c(std::string("y"));
  HeapOptional<std::string> none1, none2;
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(none1, none2);
  EXPECT_NE(a, none1);
  EXPECT_NE(none1, a);
}

}  // namespace
}  // namespace sluice::base
