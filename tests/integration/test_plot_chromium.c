/* The SVG of mpamctl plot as a browser shows it: headless chromium takes a screenshot, which
 * must not be blank and must show the partitions' colours, a partition's guarantee as a dashed line
 * where the SVG draws it, and the event labels where the SVG's boxes say. Exits 77 (skipped)
 * without chromium. */
#include <cairo.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/util/testutil.h"

#define SKIP 77

static const char record_csv[] = "t_ms,partition,mbps,mb_max,mb_min,valid,estimated,event,guarantee_mbps\n"
				 "0,web,3000.0,100,0,1,0,,6000\n"
				 "0,batch,14000.0,100,0,1,0,,\n"
				 "1000,web,3100.0,100,30,1,0,\"guarantee: mb_min 0% -> 30%\",6000\n"
				 "1000,batch,12000.0,60,0,1,0,\"throttle: a, b\",\n"
				 "2000,web,6000.0,100,30,1,0,,6000\n"
				 "2000,batch,11500.0,60,0,1,1,,\n"
				 "3000,web,5990.0,100,30,1,0,,6000\n"
				 "3000,batch,11400.0,60,0,1,0,,\n";

static char chromium[256];

static bool find_chromium(void)
{
	static const char *const names[] = { "chromium", "chromium-browser" };
	const char *path = getenv("PATH");

	if (!path)
		path = "/usr/bin:/bin";
	for (size_t n = 0; n < sizeof(names) / sizeof(names[0]); n++) {
		for (const char *dir = path; *dir;) {
			size_t len = strcspn(dir, ":");
			snprintf(chromium, sizeof(chromium), "%.*s/%s", (int)len, dir, names[n]);
			if (len && access(chromium, X_OK) == 0)
				return true;
			dir += len + (dir[len] == ':');
		}
	}
	return false;
}

static bool near(uint32_t pixel, uint32_t rgb, int tolerance)
{
	for (int shift = 0; shift < 24; shift += 8) {
		int a = (int)(pixel >> shift & 0xff), b = (int)(rgb >> shift & 0xff);
		if (abs(a - b) > tolerance)
			return false;
	}
	return true;
}

/* The y of web's guarantee line and where it runs in x, read from the SVG cairo wrote: its one path
 * stroked in web's colour, dashed 7,4 ("... d=\"M X0 Y L X1 Y \""). */
static void guarantee_line(const char *svg, double *x0, double *x1, double *y)
{
	const char *p = strstr(svg, "stroke:rgb(12.2%,46.7%,70.6%);stroke-opacity:1;stroke-dasharray:7,4;");

	assert_non_null(p);
	p = strstr(p, " d=\"M ");
	assert_non_null(p);
	double y1;
	assert_int_equal(sscanf(p, " d=\"M %lf %lf L %lf %lf", x0, y, x1, &y1), 4);
	assert_true(*y == y1 && *x1 > *x0);
}

/* Pixels near `rgb` in row y from x0 to x1 of the screenshot. */
static size_t pixels_in_row(const unsigned char *data, int stride, int y, int x0, int x1, uint32_t rgb)
{
	const uint32_t *row = (const uint32_t *)(const void *)(data + (size_t)y * (size_t)stride);
	size_t n = 0;

	for (int x = x0; x < x1; x++)
		n += near(row[x] & 0xffffff, rgb, 40);
	return n;
}

/* Ink (anything not white) in the box at x, y, w, h. */
static size_t ink_in(const unsigned char *data, int stride, double x, double y, double w, double h)
{
	size_t n = 0;

	for (int yy = (int)y; yy < (int)(y + h); yy++)
		n += (size_t)((int)(x + w) - (int)x) - pixels_in_row(data, stride, yy, (int)x, (int)(x + w), 0xffffff);
	return n;
}

static void test_chromium_renders_the_svg(void **state)
{
	char dir[64];
	char csv[128], svg[128], shot[128], profile[128], shot_arg[160], url[160];

	(void)state;
	make_test_dir(dir, sizeof(dir), "plot-chromium");
	snprintf(csv, sizeof(csv), "%s/run.csv", dir);
	snprintf(svg, sizeof(svg), "%s/run.svg", dir);
	snprintf(shot, sizeof(shot), "%s/shot.png", dir);
	snprintf(profile, sizeof(profile), "--user-data-dir=%s/profile", dir);
	snprintf(shot_arg, sizeof(shot_arg), "--screenshot=%s", shot);
	snprintf(url, sizeof(url), "file://%s", svg);
	FILE *out = fopen(csv, "w");
	assert_non_null(out);
	fputs(record_csv, out);
	fclose(out);

	struct run_result r;
	assert_int_equal(run_command((char *[]){ MPAMCTL, "plot", csv, "-o", svg, NULL }, &r), 0);
	assert_int_equal(r.exit_code, 0);
	run_result_fini(&r);

	assert_int_equal(run_command((char *[]){ "/usr/bin/timeout", "120", chromium, "--headless", "--disable-gpu",
						 "--no-sandbox", "--no-first-run", "--hide-scrollbars",
						 "--disable-dev-shm-usage", profile, shot_arg, "--window-size=1000,700",
						 url, NULL },
				     &r),
			 0);
	if (r.exit_code != 0)
		fail_msg("chromium exit %d:\n%s", r.exit_code, r.err);
	run_result_fini(&r);

	cairo_surface_t *image = cairo_image_surface_create_from_png(shot);
	assert_int_equal(cairo_surface_status(image), CAIRO_STATUS_SUCCESS);
	int width = cairo_image_surface_get_width(image), height = cairo_image_surface_get_height(image);
	int stride = cairo_image_surface_get_stride(image);
	cairo_format_t format = cairo_image_surface_get_format(image);
	assert_true(format == CAIRO_FORMAT_RGB24 || format == CAIRO_FORMAT_ARGB32);
	assert_int_equal(width, 1000);
	assert_int_equal(height, 700);
	const unsigned char *data = cairo_image_surface_get_data(image);
	size_t ink = 0, web = 0, batch = 0;
	for (int y = 0; y < height; y++) {
		const uint32_t *row = (const uint32_t *)(const void *)(data + (size_t)y * (size_t)stride);
		for (int x = 0; x < width; x++) {
			uint32_t p = row[x] & 0xffffff;
			if (format == CAIRO_FORMAT_ARGB32 && (row[x] >> 24) == 0)
				p = 0xffffff; /* transparent: the page's white */
			ink += !near(p, 0xffffff, 16);
			web += near(p, 0x1f77b4, 40);	/* the first partition's colour */
			batch += near(p, 0xff7f0e, 40); /* the second's */
		}
	}
	/* web's guarantee: a dashed line (7 on, 4 off) in its colour across the panel, as the browser
	 * draws it; one pixel row off it, none */
	char *text = read_text_file(svg);
	assert_non_null(text);
	double x0, x1, gy;
	guarantee_line(text, &x0, &x1, &gy);
	size_t on = 0;
	for (int dy = -1; dy <= 0; dy++) { /* a line 1.4 wide centred on y straddles two rows */
		size_t here = pixels_in_row(data, stride, (int)gy + dy, (int)x0, (int)x1, 0x1f77b4);
		on = here > on ? here : on;
	}
	print_message("guarantee at y %.1f: %zu of %.0f px\n", gy, on, x1 - x0);
	assert_true(on > (x1 - x0) * 0.4);
	assert_true(pixels_in_row(data, stride, (int)gy + 6, (int)x0, (int)x1, 0x1f77b4) < 20);
	/* each event label's box, as the SVG gives it, holds the label's text */
	const char *label = strstr(text, "<rect class=\"event-label\"");
	assert_non_null(label);
	for (; label; label = strstr(label + 1, "<rect class=\"event-label\"")) {
		double x, y, w, h;
		assert_int_equal(sscanf(label,
					"<rect class=\"event-label\" x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\"",
					&x, &y, &w, &h),
				 4);
		assert_true(ink_in(data, stride, x, y, w, h) > 30);
	}
	free(text);
	cairo_surface_destroy(image);
	double fraction = (double)ink / ((double)width * height);
	print_message("non-white %.2f%%, web %zu px, batch %zu px\n", fraction * 100, web, batch);
	/* grid, frames, labels, lines: a few percent of the picture, far from all of it */
	assert_true(fraction > 0.02 && fraction < 0.6);
	assert_true(web > 300 && batch > 300);

	unlink(csv);
	unlink(svg);
	unlink(shot);
	char rm[200];
	snprintf(rm, sizeof(rm), "%s/profile", dir);
	assert_int_equal(run_command((char *[]){ "/bin/rm", "-rf", rm, NULL }, &r), 0);
	run_result_fini(&r);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chromium_renders_the_svg),
	};

	if (!find_chromium()) {
		fprintf(stderr, "test_plot_chromium: no chromium in PATH: skipped\n");
		return SKIP;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
