/*
 * test_symbols' shared library: an exported function with a static one
 * right after it (in .symtab only, so a stripped copy must leave it
 * unnamed rather than give it its neighbour's name), two exported
 * one-byte functions with 64 bytes of no symbol between them, and an
 * exported function of no size (st_size 0) before another 64 bytes.
 */
int symfix_exported(int x);
void *symfix_hidden_addr(void);

int
symfix_exported(int x)
{
	return x * 3 + 1;
}

static int
symfix_hidden(int x)
{
	return symfix_exported(x) * 5 + 2;
}

/* Where the static function is: the test cannot name it to dlsym. */
void *
symfix_hidden_addr(void)
{
	return (void *)symfix_hidden;
}

__asm__(".pushsection .text\n"
    ".globl symfix_gap_before\n"
    ".type symfix_gap_before, @function\n"
    "symfix_gap_before: ret\n"
    ".size symfix_gap_before, 1\n"
    ".fill 64, 1, 0xcc\n"
    ".globl symfix_gap_after\n"
    ".type symfix_gap_after, @function\n"
    "symfix_gap_after: ret\n"
    ".size symfix_gap_after, 1\n"
    ".globl symfix_sizeless\n"
    ".type symfix_sizeless, @function\n"
    "symfix_sizeless: ret\n"
    ".fill 64, 1, 0xcc\n"
    ".globl symfix_gap_end\n"
    ".type symfix_gap_end, @function\n"
    "symfix_gap_end: ret\n"
    ".size symfix_gap_end, 1\n"
    ".popsection\n");
