// space_depth.comp: placeholder until the op lands.
void main() {}
