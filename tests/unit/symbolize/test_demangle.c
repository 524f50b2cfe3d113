/* test_demangle.c — sp_demangle against fixed Itanium C++ ABI names (the
 * expected text is what c++filt prints for them) and against the names
 * g++ gives to a small source compiled at test time, read back with nm and
 * checked against c++filt, an independent demangler. */
#include "symbolize/symbolize.h"
#include "tests/helpers/tap.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct row {
	const char *mangled, *full, *templates, *simple;
};

static const struct row rows[] = {
	{ "_Z1fv", "f()",
	  "f", "f" },
	{ "_Z3foo3bar", "foo(bar)",
	  "foo", "foo" },
	{ "_ZN1N1fEi", "N::f(int)",
	  "N::f", "N::f" },
	{ "_ZNK3Foo3barEv", "Foo::bar() const",
	  "Foo::bar", "Foo::bar" },
	{ "_ZN2ns3sumIiEET_PKS1_m", "int ns::sum<int>(int const*, unsigned long)",
	  "ns::sum<int>", "ns::sum" },
	{ "_ZN12_GLOBAL__N_16helperEv", "(anonymous namespace)::helper()",
	  "(anonymous namespace)::helper", "(anonymous namespace)::helper" },
	{ "_ZNSt6vectorIiSaIiEE9push_backERKi", "std::vector<int, std::allocator<int> >::push_back(int const&)",
	  "std::vector<int, std::allocator<int> >::push_back", "std::vector::push_back" },
	{ "_ZN3FooC1Ev", "Foo::Foo()",
	  "Foo::Foo", "Foo::Foo" },
	{ "_ZN3FooD2Ev", "Foo::~Foo()",
	  "Foo::~Foo", "Foo::~Foo" },
	{ "_ZL3bazv", "baz()",
	  "baz", "baz" },
	{ "_ZdlPv", "operator delete(void*)",
	  "operator delete", "operator delete" },
	{ "_Z3fooi.cold", "foo(int) [clone .cold]",
	  "foo", "foo" },
	{ "_Z3fooi.isra.0", "foo(int) [clone .isra.0]",
	  "foo", "foo" },
	{ "_ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_PKc",
	  "std::basic_ostream<char, std::char_traits<char> >& std::operator<< <std::char_traits<char> >(std::basic_ostream<char, std::char_traits<char> >&, char const*)",
	  "std::operator<< <std::char_traits<char> >", "std::operator<<" },
	{ "_ZNKSt6vectorIiSaIiEEixEm",
	  "std::vector<int, std::allocator<int> >::operator[](unsigned long) const",
	  "std::vector<int, std::allocator<int> >::operator[]", "std::vector::operator[]" },
	{ "_ZN3FooltERKS_",
	  "Foo::operator<(Foo const&)",
	  "Foo::operator<", "Foo::operator<" },
	{ "_ZN3FooptEv",
	  "Foo::operator->()",
	  "Foo::operator->", "Foo::operator->" },
	{ "_ZN3FoorsEi",
	  "Foo::operator>>(int)",
	  "Foo::operator>>", "Foo::operator>>" },
	{ "_ZN3FoolSEi",
	  "Foo::operator<<=(int)",
	  "Foo::operator<<=", "Foo::operator<<=" },
	{ "_ZN3FoossERKS_",
	  "Foo::operator<=>(Foo const&)",
	  "Foo::operator<=>", "Foo::operator<=>" },
	{ "_ZNSt8_Rb_treeIiiSt9_IdentityIiESt4lessIiESaIiEE11_M_get_nodeEv",
	  "std::_Rb_tree<int, int, std::_Identity<int>, std::less<int>, std::allocator<int> >::_M_get_node()",
	  "std::_Rb_tree<int, int, std::_Identity<int>, std::less<int>, std::allocator<int> >::_M_get_node", "std::_Rb_tree::_M_get_node" },
};

static void test_table(void)
{
	for (size_t i = 0; i < SP_ARRAY_LEN(rows); i++) {
		char *f = sp_demangle(rows[i].mangled, SP_DEMANGLE_FULL);
		char *t = sp_demangle(rows[i].mangled, SP_DEMANGLE_TEMPLATES);
		char *n = sp_demangle(rows[i].mangled, SP_DEMANGLE_NONE);
		char *si = sp_demangle(rows[i].mangled, SP_DEMANGLE_SIMPLE);
		TAP_EQ_STR(f, rows[i].full, "full: %s", rows[i].mangled);
		TAP_EQ_STR(t, rows[i].templates, "templates: %s", rows[i].mangled);
		TAP_EQ_STR(si, rows[i].simple, "simple: %s", rows[i].mangled);
		free(si);
		TAP_OK(n == NULL, "none: %s gives NULL", rows[i].mangled);
		free(f);
		free(t);
		free(n);
	}
	static const char *plain[] = { "main", "memcpy", "_start", "", "_Z" };
	for (size_t i = 0; i < SP_ARRAY_LEN(plain); i++) {
		char *f = sp_demangle(plain[i], SP_DEMANGLE_FULL);
		char *t = sp_demangle(plain[i], SP_DEMANGLE_TEMPLATES);
		TAP_OK(!f && !t, "not mangled: \"%s\" gives NULL", plain[i]);
		free(f);
		free(t);
	}
	TAP_OK(sp_demangle(NULL, SP_DEMANGLE_FULL) == NULL, "NULL name gives NULL");
}

static const char source[] =
	"namespace ns { template <typename T> T sum(const T *p, unsigned long n)\n"
	"{ T s = 0; for (unsigned long i = 0; i < n; i++) s += p[i]; return s; } }\n"
	"template int ns::sum<int>(const int *, unsigned long);\n"
	"namespace { __attribute__((noinline, used)) int helper() { return 1; } }\n"
	"struct Foo { int bar() const; };\n"
	"int Foo::bar() const { return helper(); }\n"
	"extern \"C\" int cfunc(void) { return 2; }\n";

/* Runs CMD and returns its first output line without the newline. */
static char *first_line(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	char buf[4096];
	char *out = NULL;
	if (!p)
		return NULL;
	if (fgets(buf, sizeof(buf), p)) {
		buf[strcspn(buf, "\n")] = '\0';
		out = strdup(buf);
	}
	pclose(p);
	return out;
}

static void test_compiled(void)
{
	char dir[] = "/tmp/sp-demangle-XXXXXX";
	char cmd[1024], line[4096];
	bool saw_sum = false, saw_helper = false, saw_bar = false, saw_cfunc = false;
	int n_mangled = 0, n_agree = 0;

	if (!mkdtemp(dir)) {
		TAP_OK(0, "mkdtemp");
		return;
	}
	snprintf(cmd, sizeof(cmd), "%s/x.cc", dir);
	FILE *f = fopen(cmd, "w");
	fputs(source, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "g++ -O0 -c -o %s/x.o %s/x.cc", dir, dir);
	if (!TAP_OK(system(cmd) == 0, "g++ compiles the fixture"))
		return;
	snprintf(cmd, sizeof(cmd), "nm --defined-only %s/x.o", dir);
	FILE *nm = popen(cmd, "r");
	while (nm && fgets(line, sizeof(line), nm)) {
		char type, name[512];
		if (sscanf(line, "%*s %c %511s", &type, name) != 2 || (type != 'T' && type != 't' &&
									 type != 'W'))
			continue;
		char *full = sp_demangle(name, SP_DEMANGLE_FULL);
		char *tmpl = sp_demangle(name, SP_DEMANGLE_TEMPLATES);
		if (strncmp(name, "_Z", 2) == 0) {
			snprintf(cmd, sizeof(cmd), "c++filt '%s'", name);
			char *ref = first_line(cmd);
			n_mangled++;
			if (full && ref && strcmp(full, ref) == 0)
				n_agree++;
			else
				printf("#   %s: ours \"%s\", c++filt \"%s\"\n", name,
				       full ? full : "(null)", ref ? ref : "(null)");
			free(ref);
		}
		if (tmpl && strcmp(tmpl, "ns::sum<int>") == 0)
			saw_sum = true;
		if (tmpl && strcmp(tmpl, "(anonymous namespace)::helper") == 0)
			saw_helper = true;
		if (tmpl && strcmp(tmpl, "Foo::bar") == 0)
			saw_bar = true;
		if (strcmp(name, "cfunc") == 0 && !full && !tmpl)
			saw_cfunc = true;
		free(full);
		free(tmpl);
	}
	if (nm)
		pclose(nm);
	TAP_OK(n_mangled >= 3, "g++ fixture has mangled names (%d)", n_mangled);
	TAP_OK(n_agree == n_mangled, "full style agrees with c++filt on %d of %d", n_agree,
	       n_mangled);
	TAP_OK(saw_sum, "templates style: ns::sum<int> from g++");
	TAP_OK(saw_helper, "templates style: (anonymous namespace)::helper from g++");
	TAP_OK(saw_bar, "templates style: Foo::bar from g++");
	TAP_OK(saw_cfunc, "extern \"C\" cfunc is not demangled");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
}

int main(void)
{
	test_table();
	test_compiled();
	return tap_done();
}
