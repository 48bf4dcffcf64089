/* test_ops_general.c: the ops of general shapes. Their cases on the device are the tables
 * of cases_general.c (OP_TABLES_GENERAL); here, the references themselves against
 * hand-worked TFLite values, and the validation messages. */
#include "op_cases.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

OP_TABLES_GENERAL(OP_TABLE_TEST)
