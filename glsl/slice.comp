// slice.comp: placeholder until the op lands.
void main() {}
