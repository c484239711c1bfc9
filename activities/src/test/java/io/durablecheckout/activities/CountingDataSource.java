package io.durablecheckout.activities;

import javax.sql.DataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.concurrent.atomic.AtomicInteger;

/** A test's database that counts the statements prepared whose text contains a given piece (a table's name). */
public final class CountingDataSource {

    private CountingDataSource() {
    }

    public static DataSource counting(DataSource real, String containing, AtomicInteger count) {
        ClassLoader loader = CountingDataSource.class.getClassLoader();
        return (DataSource) Proxy.newProxyInstance(loader, new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
            Object result = invoke(method, real, args);
            if (!(result instanceof Connection connection)) {
                return result;
            }
            return Proxy.newProxyInstance(loader, new Class<?>[] {Connection.class}, (p, m, a) -> {
                if (m.getName().equals("prepareStatement") && String.valueOf(a[0]).contains(containing)) {
                    count.incrementAndGet();
                }
                return invoke(m, connection, a);
            });
        });
    }

    private static Object invoke(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
