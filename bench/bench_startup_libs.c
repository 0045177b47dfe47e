/* SPDX-License-Identifier: MIT */
/*
 * The "libs" baseline of bench_startup: nothing but a main that returns 0, linked with the
 * libraries the proxyscope CLI needs at load time (bench/CMakeLists.txt keeps them all in its
 * DT_NEEDED), so an exec of it pays what loading those libraries and their constructors cost.
 */
int main(void)
{
	return 0;
}
