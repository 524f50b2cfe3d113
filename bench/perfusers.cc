// perfusers.cc — the C++ workload of bench/perf-users.sh: strings sorted,
// counted in a std::map and an unordered_map, a vector of doubles
// transformed; a few seconds of user time in libstdc++ and the program.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace work {

static std::string word(unsigned long x)
{
	std::string s;
	for (int i = 0; i < 8; i++) {
		s.push_back(static_cast<char>('a' + x % 26));
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	}
	return s;
}

__attribute__((noinline)) unsigned long sort_words(unsigned long n)
{
	std::vector<std::string> v;
	for (unsigned long i = 0; i < n; i++)
		v.push_back(word(i * 2654435761UL));
	std::sort(v.begin(), v.end());
	return v.front().size() + v.back()[0];
}

__attribute__((noinline)) unsigned long count_words(unsigned long n)
{
	std::map<std::string, unsigned long> ordered;
	std::unordered_map<std::string, unsigned long> hashed;
	for (unsigned long i = 0; i < n; i++) {
		std::string w = word(i % 5003);
		ordered[w]++;
		hashed[w] += i;
	}
	return ordered.size() + hashed.size();
}

__attribute__((noinline)) double transform(unsigned long n)
{
	std::vector<double> v(n);
	for (unsigned long i = 0; i < n; i++)
		v[i] = std::sin(static_cast<double>(i)) * std::sqrt(static_cast<double>(i));
	std::transform(v.begin(), v.end(), v.begin(), [](double x) { return std::exp(-x * x); });
	double s = 0;
	for (double x : v)
		s += x;
	return s;
}

} // namespace work

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? std::atoi(argv[1]) : 4;
	unsigned long acc = 0;
	double d = 0;
	for (int r = 0; r < rounds; r++) {
		acc += work::sort_words(200000);
		acc += work::count_words(400000);
		d += work::transform(2000000);
	}
	std::printf("%lu %g\n", acc, d);
	return 0;
}
