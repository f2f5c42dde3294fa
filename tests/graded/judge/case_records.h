/*
 * case_records.h: the records of the case being judged, between judge.c, which reads
 * them from the runner (and from the reference file, for a case that needs it) before
 * the case's JUDGE half runs, and expect.c, where the half reads them (judge.h's got_*
 * and ref_*).
 */
#ifndef WB_GRADED_CASE_RECORDS_H
#define WB_GRADED_CASE_RECORDS_H

#include "../protocol/protocol.h"

extern RecordSet got_set, ref_set;

#endif
