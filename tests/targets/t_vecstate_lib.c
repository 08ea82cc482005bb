/* A plain SSE function to hook (built without AVX). */
double vecstate_add(double a, double b)
{
	return a + b;
}
