// SPDX-License-Identifier: GPL-2.0
/* Always compiles on a usable kernel tree: tells a failed probe from a broken toolchain */
#include <linux/fs.h>
#include <linux/dax.h>
#include <linux/iomap.h>
