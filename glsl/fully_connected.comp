// fully_connected.comp: placeholder until the op lands.
void main() {}
