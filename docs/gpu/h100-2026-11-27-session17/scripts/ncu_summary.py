import csv,gzip,collections,io,sys
text=gzip.open(sys.argv[1],'rt').read()
text=text[text.index('"ID"'):]
rows=list(csv.DictReader(io.StringIO(text)))
k=collections.defaultdict(lambda: collections.defaultdict(list))
for r in rows:
    try: v=float(r['Metric Value'].replace(',',''))
    except: continue
    k[r['Kernel Name'][:34]][r['Metric Name']].append(v)
tot=sum(sum(m['gpu__time_duration.sum']) for m in k.values())/1e3
print('total us %.0f'%tot, 'kernels', sum(len(m['gpu__time_duration.sum']) for m in k.values()))
for name,m in sorted(k.items(), key=lambda x:-sum(x[1]['gpu__time_duration.sum'])):
    t=[x/1e3 for x in m['gpu__time_duration.sum']]; n=len(t)
    avg=lambda key: sum(m[key])/len(m[key]) if m[key] else float('nan')
    rb=avg('dram__bytes_read.sum'); wb=avg('dram__bytes_write.sum')
    print(f"{name:30s} n={n:3d} t={sum(t)/n:6.1f}us {sum(t)/tot*100:4.1f}% dram%={avg('dram__throughput.avg.pct_of_peak_sustained_elapsed'):4.1f} MB={(rb+wb)/1e6:5.1f} GB/s={(rb+wb)/(sum(t)/n)/1e3:5.0f} L2hit={avg('lts__t_sector_hit_rate.pct'):4.1f} L2%={avg('lts__throughput.avg.pct_of_peak_sustained_elapsed'):4.1f} L1%={avg('l1tex__throughput.avg.pct_of_peak_sustained_active'):4.1f} SM%={avg('sm__throughput.avg.pct_of_peak_sustained_elapsed'):4.1f} occ={avg('sm__warps_active.avg.pct_of_peak_sustained_active'):4.1f} grid={avg('launch__grid_size'):.0f} regs={avg('launch__registers_per_thread'):.0f}")
