/* fuzz_maps.c — libFuzzer harness for memory-map parsing: the first line
 * through sp_maps_parse_line, the whole input as a map section, then
 * locations attached to the result; the profile must stay valid and every
 * address must land in a mapping.  Built like fuzz_heap.c, with
 * tests/fuzz/fuzz_maps.c in place of fuzz_heap.c.
 * fuzz-runs: 40000 (executions of each scripts/fuzz CI pass: about 10 s) */
#include "profile/profile.h"
#include "tests/fuzz/check.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	const char *nl = memchr(text, '\n', size);
	sp_maps_entry e = {0};
	if (sp_maps_parse_line(text, nl ? (size_t)(nl - text) : size, &e)) {
		sp_maps_entry_clear(&e);
	}
	sp_profile *p = sp_profile_new();
	static const uint64_t addrs[] = {0, 1, 0x400000, 0x7f0000001000, UINT64_MAX};
	for (size_t i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++)
		sp_profile_location_for_address(p, 0, addrs[i]);
	sp_error *err = sp_profile_parse_maps(p, text, size);
	sp_error_free(err);
	sp_profile_attach_locations(p);
	for (size_t i = 0; i < p->n_mappings; i++)
		(void)sp_mapping_unsymbolizable(p, &p->mappings[i]);
	err = sp_profile_check(p, "fuzz");
	if (err)
		SP_FUZZ_FAIL("the profile does not pass the validity check");
	for (size_t i = 0; i < p->n_locations; i++)
		if (p->locations[i].address && !sp_profile_mapping(p, p->locations[i].mapping_id))
			SP_FUZZ_FAIL("an address outside every mapping");
	sp_profile_free(p);
	return 0;
}
