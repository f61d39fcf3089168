from torchcompile_doctor.cli import main

main()
