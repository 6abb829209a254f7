// SPDX-License-Identifier: MIT
/*
 * version.c - getvalues_version(): the version of the library running, for
 * a program built against one header and run with a newer shared library.
 */
#include "common.h"

GV_EXPORT unsigned int getvalues_version(void)
{
	return GETVALUES_VERSION_CODE;
}
