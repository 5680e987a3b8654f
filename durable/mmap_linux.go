package durable

import "syscall"

// mmapFlags makes the kernel read the file into the mapping at once: a
// Load reads all of it, and one populate costs less than a fault per page.
const mmapFlags = syscall.MAP_POPULATE
