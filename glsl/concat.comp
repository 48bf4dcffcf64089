// concat.comp placeholder
void main() {}
