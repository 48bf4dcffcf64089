// transpose_conv.comp: placeholder until the op lands.
void main() {}
