/* fe_strmap.c - the StrId -> uint32 map of fe.h: an array indexed by the
 * id, grown by doubling. */
#include <stdlib.h>
#include <string.h>

#include "fe.h"

uint32_t
fe_map_get(const StrMap *mp, StrId k)
{
	return k < mp->cap ? mp->v[k] : 0;
}

void
fe_map_set(StrMap *mp, StrId k, uint32_t v)
{
	if (k >= mp->cap) {
		uint32_t old = mp->cap, cap = old ? old : 64;
		while (cap <= k)
			cap *= 2;
		mp->v = xrealloc(mp->v, cap * sizeof *mp->v);
		memset(mp->v + old, 0, (cap - old) * sizeof *mp->v);
		mp->cap = cap;
	}
	mp->v[k] = v;
}

void
fe_map_free(StrMap *mp)
{
	free(mp->v);
	mp->v = NULL;
	mp->cap = 0;
}
