// Stands for a host file an untrusted candidate must not reach.
static const int secret = 42;
