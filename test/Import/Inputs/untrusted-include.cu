// Ways to reach a file that a line-by-line text screen missed: a digraph,
// #import, a line splice. clang's dependency list sees through all of them.
%:include "untrusted-secret.h"
#import "untrusted-secret.h"
#inc\
lude "untrusted-secret.h"
__global__ void leak(int *y) { y[0] = secret; }
