// Extended attributes (getxattr, setxattr, removexattr), which Glibc's Swift module leaves out.
#include <sys/xattr.h>
