/* JSON reader + printer properties on hand-written inputs (the same check the libFuzzer target runs). */
#include "harness.h"
#include "json_roundtrip.h"

static const char *INPUTS[] = {
    "{}\n",
    "{\"b\":true,\"i8\":-128,\"i\":2147483647,\"l\":-9223372036854775807,\"f\":0.1,\"g\":-0.0,\"d\":\"-999999.999\","
    "\"dt\":\"-0001-12-31\",\"tm\":\"23:59:59.999999\",\"ts\":\"1677-09-21T00:12:43.145224192\","
    "\"tz\":\"2024-02-29T12:00:00.5Z\",\"s\":\"\\u0000\\ud83d\\ude00\\\"\",\"z\":\"AA==\",\"w\":\"//8=\"}\n",
    "{\"f\":\"NaN\",\"g\":\"-Infinity\",\"a\":[{\"k\":\"x\",\"v\":[1e300,5e-324,null]},null,{}],"
    "\"m\":[[1,[1,-2]],[2,null],[3,[null,32767]]],\"r\":{\"x\":\"large\",\"y\":\"+10000-01-01\"}}\n",
    "[true,1,2,3,3.5,4.25,\"1.5\",\"1970-01-01\",\"00:00:00\",\"1970-01-01 00:00:00\",null,\"s\",\"\",null,"
    "[],{\"1\":[0,0]},[\"x\",null]]\n\n   \n",
    "{\"g\":1e-7,\"f\":3.4028234663852886e38}\n{\"g\":123456789012345678}\n",
};

/* Inputs the reader must reject. */
static const char *BAD[] = {
    "{\"i8\":128}", "{\"d\":\"1.2345\"}", "{\"w\":\"AA==\"}", "{\"m\":[[null,[1,2]]]}", "{\"m\":[[1,[1]]]}",
    "{\"dt\":\"2023-13-01\"}", "{\"s\":1}", "{\"a\":[1]}", "not json", "{\"tm\":\"24:00:00\"}",
};

static void test_properties(void) {
  pm_type t;
  pm_error err;
  CHECK_OK(jrt_type(&t, &err), &err);
  for (size_t i = 0; i < sizeof INPUTS / sizeof *INPUTS; i++) {
    struct ArrowArray a;
    int rc = pm_json_lines_to_array(&t, INPUTS[i], strlen(INPUTS[i]), &a, &err);
    CHECK_MSG(rc == 0, "input %zu rejected: %s", i, err.message);
    pm_array_release(&a);
    const char *why;
    CHECK_MSG(jrt_check(&t, INPUTS[i], strlen(INPUTS[i]), &why) == 0, "input %zu: %s", i, why);
  }
  for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
    struct ArrowArray a;
    int rc = pm_json_lines_to_array(&t, BAD[i], strlen(BAD[i]), &a, &err);
    CHECK_MSG(rc != 0, "accepted bad input %s", BAD[i]);
    if (!rc) pm_array_release(&a);
  }
  pm_type_free(&t);
}

int main(void) {
  RUN_TEST(test_properties);
  TEST_MAIN_END();
}
