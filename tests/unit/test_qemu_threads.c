/* Which of QEMU's threads are vCPUs, table-tested: the names debug-threads=on gives them (KVM, TCG with
 * thread=multi and thread=single), and the command lines of QEMUs whose threads have none. Real QEMUs
 * are in tests/integration/test_placement_qemu.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "backends/cgroup/qemu_threads.h"
#include "tests/util/test_main.h"

static void test_vcpu_names(void **state)
{
	static const struct {
		const char *comm;
		bool vcpu;
	} cases[] = {
		{ "CPU 0/KVM", true },	      { "CPU 12/KVM\n", true },
		{ "CPU 127/KVM", true },      { "CPU 1/TCG", true },
		{ "CPU 1023/TCG\n", true },   { "ALL CPUs/TCG", true },
		{ "ALL CPUs/TCG\n", true },   { "ALL CPUs/KVM", false },
		{ "CPU /KVM", false },	      { "CPU /TCG", false },
		{ "CPU 1/KVMx", false },      { "CPU 1/TCGx", false },
		{ "CPU 1/HVF", false },	      { "CPU 1KVM", false },
		{ "cpu 1/KVM", false },	      { "CPU 1/KV", false },
		{ "qemu-system-x86", false }, { "IO mon_iothread", false },
		{ "CPU 1/KVM\n\n", false },   { "", false },
		{ " CPU 1/KVM", false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (qemu_vcpu_name(cases[i].comm) != cases[i].vcpu)
			fail_msg("'%s': expected %s", cases[i].comm, cases[i].vcpu ? "a vCPU" : "no vCPU");
}

/* Command lines with '|' for the NUL after each argument. */
static void test_unnamed_cmdlines(void **state)
{
	static const struct {
		const char *args;
		bool unnamed;
	} cases[] = {
		{ "/usr/bin/qemu-system-x86_64|-name|guest=web,debug-threads=on|-S|", false },
		{ "qemu-system-x86_64|--name|web,debug-threads=on|", false },
		{ "/usr/libexec/qemu-kvm|-name|guest=web,debug-threads=yes|", false },
		{ "qemu-system-aarch64|-name|debug-threads=true|", false },
		{ "qemu-system-x86_64|-name|guest=web|", true },
		{ "qemu-system-x86_64|-name|guest=web,debug-threads=off|", true },
		{ "qemu-system-x86_64|-m|64|", true },
		{ "qemu-system-x86_64|", true },
		{ "/usr/libexec/qemu-kvm|-enable-kvm|", true },
		/* the last -name says, as QEMU merges them */
		{ "qemu-system-x86_64|-name|debug-threads=on|-name|debug-threads=off|", true },
		{ "qemu-system-x86_64|-name|debug-threads=off|-name|guest=web,debug-threads=on|", false },
		/* ",," is a comma in the guest's name, not the start of an option */
		{ "qemu-system-x86_64|-name|guest=a,,debug-threads=on|", true },
		{ "qemu-system-x86_64|-name|guest=a,,b,debug-threads=on|", false },
		/* no value, or debug-threads where it means nothing */
		{ "qemu-system-x86_64|-name|", true },
		{ "qemu-system-x86_64|-device|debug-threads=on|", true },
		/* cut in the middle of the value: no whole argument */
		{ "qemu-system-x86_64|-name|guest=web,debug-threads=on", true },
		/* no QEMU */
		{ "/bin/sleep|100|", false },
		{ "qemu-img|info|x|", false },
		{ "/opt/qemu-system/bin/vmm|", false },
		{ "", false },
	};
	char buf[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = strlen(cases[i].args);
		memcpy(buf, cases[i].args, len);
		for (size_t k = 0; k < len; k++)
			buf[k] = buf[k] == '|' ? '\0' : buf[k];
		if (qemu_cmdline_unnamed(buf, len) != cases[i].unnamed)
			fail_msg("'%s': expected %s", cases[i].args, cases[i].unnamed ? "an unnamed QEMU" : "not one");
	}
}

TEST_MAIN({
	cmocka_unit_test(test_vcpu_names),
	cmocka_unit_test(test_unnamed_cmdlines),
})
