asm(".text\n.zero 42\n");
volatile int hits;
static inline __attribute__((always_inline)) void tick() { hits++; }
int main() {
  tick();
  hits += 2;
  return 0;
}
