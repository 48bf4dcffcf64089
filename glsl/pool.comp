// pool.comp placeholder
void main() {}
