# embed.awk -v name=NAME FILE — FILE as a C string constant NAME, one string literal per
# line of FILE: backslashes and double quotes escaped, and a '?' after another '?'
# written as \077 (no trigraph can form).
BEGIN { printf "static const char %s[] =\n", name }
{
	out = ""
	prev = ""
	n = length($0)
	for (i = 1; i <= n; i++) {
		c = substr($0, i, 1)
		if (c == "\\")
			out = out "\\\\"
		else if (c == "\"")
			out = out "\\\""
		else if (c == "?" && prev == "?")
			out = out "\\077"
		else
			out = out c
		prev = c
	}
	printf "\t\"%s\\n\"\n", out
}
END { print "\t\"\";" }
